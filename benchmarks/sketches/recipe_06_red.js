// Scarlet hibiscus, five petals painted in two glazes, with a darker throat and a long column.
function setup() {
  createCanvas(600, 600, WEBGL);
  brush.scaleBrushes(3);
  noLoop();
}

function draw() {
  translate(-width / 2, -height / 2);
  background(250, 247, 240);
  brush.noStroke();
  push();
  translate(300, 300);
  rotate(0.5);
  for (let k = 0; k < 5; k++) {
    brush.fillBleed(0.3);
    brush.fillTexture(0.7, 0.5);
    brush.fill(222, 30, 36, 180);
    brush.beginShape(0.7);
    brush.vertex(0, 0);
    brush.vertex(140, -120);
    brush.vertex(200, -80);
    brush.vertex(225, 0);
    brush.vertex(200, 80);
    brush.vertex(140, 120);
    brush.endShape(true);
    rotate(TWO_PI / 5);
  }
  for (let k = 0; k < 5; k++) {
    brush.fillBleed(0.2);
    brush.fillTexture(0.5, 0.4);
    brush.fill(150, 10, 24, 150);
    brush.beginShape(0.6);
    brush.vertex(0, 0);
    brush.vertex(90, -40);
    brush.vertex(110, 0);
    brush.vertex(90, 40);
    brush.endShape(true);
    rotate(TWO_PI / 5);
  }
  pop();
  brush.fillBleed(0.2);
  brush.fillTexture(0.4, 0.5);
  brush.fill(80, 0, 16, 220);
  brush.circle(300, 300, 30, true);
  brush.fillBleed(0.05);
  brush.fill(236, 80, 70, 230);
  brush.beginShape(0.1);
  brush.vertex(297, 300);
  brush.vertex(395, 185);
  brush.vertex(402, 191);
  brush.vertex(303, 304);
  brush.endShape(true);
  brush.fill(250, 210, 60, 240);
  for (let i = 0; i < 8; i++) {
    brush.circle(392 + 18 * cos(i * 0.8), 182 + 14 * sin(i * 1.4), 5, true);
  }
  brush.fill(200, 20, 30, 240);
  brush.circle(408, 172, 8, true);
}
